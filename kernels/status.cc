#include "kernels/status.h"

namespace cryptobench {

std::string_view describe(Error error) {
  switch (error) {
    case Error::kNone:
      return "ok";
    case Error::kKeyNotSet:
      return "no key has been set";
    case Error::kKeyLength:
      return "AES key must be 16, 24 or 32 bytes";
    case Error::kIvLength:
      return "CBC needs a 16-byte IV and ECB takes none";
    case Error::kInputLength:
      return "input length is not a positive multiple of the 16-byte block";
    case Error::kOutputTooSmall:
      return "output buffer too small";
    case Error::kBadPadding:
      return "bad PKCS#7 padding";
    case Error::kBadEncoding:
      return "malformed Base64/hex text";
    case Error::kLibraryFailure:
      return "the cipher library reported a failure";
    case Error::kKeyMismatch:
      return "a batch message's key cipher is of another backend, mode or key size";
    case Error::kCounterLength:
      return "CTR needs a 16-byte counter block";
    case Error::kNonceLength:
      return "GCM needs a nonce, of a length the library accepts";
    case Error::kTagLength:
      return "GCM tag must be 4 to 16 bytes, and as long as the library accepts";
    case Error::kKeyNotOffered:
      return "the library does not offer this key length in this mode";
    case Error::kBadTag:
      return "GCM authentication failed (tag mismatch); the output has been wiped";
  }
  return "unknown error";
}

}  // namespace cryptobench
