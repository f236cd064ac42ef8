// status.h: the typed errors of the data path. Kernels report failures as
// values (no exceptions, no allocation) so the benchmarks can check every
// call without disturbing what they time.
#pragma once

#include <cstddef>
#include <string_view>

namespace cryptobench {

enum class Error {
  kNone = 0,
  kKeyNotSet,       // encrypt/decrypt before set_key
  kKeyLength,       // key not 16, 24 or 32 bytes
  kIvLength,        // CBC IV not 16 bytes, or an IV given to ECB
  kInputLength,     // unpadded input not a multiple of 16, or empty padded ciphertext
  kOutputTooSmall,  // caller's output buffer cannot hold the result
  kBadPadding,      // PKCS#7 check failed; the output has been wiped
  kBadEncoding,     // Base64/hex text malformed (character, length or padding)
  kLibraryFailure,  // the backing library reported an error
  kKeyMismatch,     // a batch message's key is a cipher of another backend, mode or key size
  kCounterLength,   // CTR's counter block is not 16 bytes
  kNonceLength,     // GCM nonce empty, or of a length the library does not accept
  kTagLength,       // GCM tag not 4..16 bytes, or shorter than the library accepts
  kKeyNotOffered,   // a valid AES key length the library does not offer in this mode
  kBadTag,          // GCM authentication failed; the output has been wiped
};

// describe: a one-line, human-readable explanation of an error.
std::string_view describe(Error error);

// Result: an error, or the number of bytes written on success.
struct [[nodiscard]] Result {
  Error error = Error::kNone;
  std::size_t size = 0;

  bool ok() const { return error == Error::kNone; }
  static Result success(std::size_t written) { return {Error::kNone, written}; }
  static Result failure(Error e) { return {e, 0}; }
};

}  // namespace cryptobench
